"""The three lives: places, routes and plans. Coordinates are real places (landmarks, stations,
streets); businesses with invented names stand at plausible addresses.

Addresses are written as Google's Semantic Location History writes them for the person's locale:
most in the "street number, [postcode] city" form without a country, some with the country (both
occur in real exports, which vary with the app's version and language).
"""

import datetime as dt


class Place:
    def __init__(self, key, name, lat, lon, address="", city="", kind="place", routine=False, words=None,
                 semantic=None, alt=40.0):
        self.key, self.name, self.lat, self.lon = key, name, lat, lon
        self.address, self.city, self.kind, self.routine = address, city, kind, routine
        self.words = words or [name]
        self.semantic = semantic  # "home"/"work" label Google may carry (TYPE_HOME/TYPE_WORK)
        self.alt = alt

    def __repr__(self):
        return "Place(%s)" % self.key


def P(*args, **kw):
    return Place(*args, **kw)


# Songs the person plays (metadata only), with durations.
CATALOGUE = [
    ("Nils Frahm", "Says", "Spaces", 523000), ("Bonobo", "Kerala", "Migration", 243000),
    ("Khruangbin", "Maria También", "Con Todo El Mundo", 191000), ("Parcels", "Tieduprightnow", "Parcels", 271000),
    ("Moderat", "A New Error", "Moderat", 366000), ("Fred again..", "Delilah (pull me out of this)", "Actual Life 3", 263000),
    ("Ólafur Arnalds", "Saman", "re:member", 233000), ("Tame Impala", "Let It Happen", "Currents", 467000),
    ("Little Simz", "Point and Kill", "NO THANK YOU", 219000), ("Floating Points", "Last Bloom", "Crush", 284000),
    ("Jamie xx", "Gosh", "In Colour", 295000), ("Four Tet", "Baby", "Sixteen Oceans", 330000),
    ("Caribou", "Home", "Suddenly", 232000), ("Kraftwerk", "Computerwelt", "Computerwelt", 305000),
    ("Rosalía", "Despechá", "Motomami +", 157000), ("Hiatus Kaiyote", "Red Room", "Mood Valiant", 267000),
    ("Yann Tiersen", "Porz Goret", "EUSA", 281000), ("Sault", "Wildfires", "Untitled (Black Is)", 270000),
    ("Arlo Parks", "Caroline", "Collapsed in Sunbeams", 223000), ("Mac DeMarco", "Chamber of Reflection", "Salad Days", 231000),
    ("Cigarettes After Sex", "Apocalypse", "Cigarettes After Sex", 290000), ("Kiasmos", "Blurred EP", "Blurred", 362000),
    ("Ryuichi Sakamoto", "Merry Christmas Mr. Lawrence", "Coda", 279000), ("Cornelius", "Star Fruits Surf Rider", "Fantasma", 263000),
    ("Tycho", "Awake", "Awake", 283000), ("Men I Trust", "Show Me How", "Oncle Jazz", 214000),
]


def berlin():
    tz = "Europe/Berlin"
    pl = {
        "home": P("home", "Home", 52.49870, 13.43050, "Wiener Straße 18, 10999 Berlin", "Berlin", "home", True,
                  ["home", "Zuhause"], semantic="home"),
        "st_home": P("st_home", "Görlitzer Bahnhof", 52.49910, 13.42820, "Skalitzer Str. 1, 10999 Berlin", "Berlin", "station"),
        "cafe": P("cafe", "Café Kiezbohne", 52.50110, 13.42150, "Oranienstraße 164, 10999 Berlin", "Berlin", "cafe", True,
                  ["Kiezbohne"]),
        "work": P("work", "Tilde Software GmbH", 52.52640, 13.40210, "Rosenthaler Straße 40, 10178 Berlin", "Berlin", "work", True,
                  semantic="work"),
        "st_work": P("st_work", "Rosenthaler Platz", 52.52970, 13.40140, "Rosenthaler Platz, 10119 Berlin", "Berlin", "station"),
        "lunch": P("lunch", "Falafel Hummus Haus", 52.52890, 13.40160, "Rosenthaler Straße 12, 10119 Berlin", "Berlin", "lunch", True),
        "shop": P("shop", "REWE", 52.49930, 13.42560, "Skalitzer Straße 134, 10999 Berlin", "Berlin", "supermarket", True),
        "park": P("park", "Görlitzer Park", 52.49620, 13.43720, "Görlitzer Str. 77, 10997 Berlin", "Berlin", "park", True),
        "gym": P("gym", "Urban Gym Kreuzberg", 52.50230, 13.41690, "Adalbertstraße 8, 10999 Berlin", "Berlin", "gym", True),
        "restaurant": P("restaurant", "Trattoria Lucca", 52.48930, 13.39620, "Bergmannstraße 52, 10961 Berlin", "Berlin",
                        "restaurant", words=["Trattoria Lucca", "Lucca"]),
        "museum": P("museum", "Neues Museum", 52.52060, 13.39770, "Bodestraße 1-3, 10178 Berlin", "Berlin", "museum",
                    words=["Neues Museum", "Museumsinsel"]),
        "bar": P("bar", "Kneipe Zum Goldenen Hahn", 52.50070, 13.42870, "Pücklerstraße 20, 10997 Berlin", "Berlin", "bar",
                 words=["Goldenen Hahn"]),
        "market": P("market", "Flohmarkt im Mauerpark", 52.54040, 13.40270, "Bernauer Straße 63-64, 13355 Berlin", "Berlin", "market",
                    words=["Mauerpark", "Flohmarkt"]),
        "lake": P("lake", "Strandbad Wannsee", 52.43900, 13.17900, "Wannseebadweg 25, 14129 Berlin", "Berlin", "beach",
                  words=["Wannsee"], alt=35),
        # The hike.
        "trailhead": P("trailhead", "Buckow Markt", 52.57100, 14.07400, "Markt 1, 15377 Buckow (Märkische Schweiz)", "Buckow",
                       "trailhead", words=["Buckow", "Märkische Schweiz"], alt=60),
        "inn": P("inn", "Gaststätte Fischerkehle", 52.58150, 14.05900, "Am Schermützelsee 3, 15377 Buckow (Märkische Schweiz)",
                 "Buckow", "restaurant", words=["Fischerkehle", "Buckow", "Schermützelsee"], alt=45),
        # The trip.
        "st_origin": P("st_origin", "Berlin Hauptbahnhof", 52.52510, 13.36940, "Europaplatz 1, 10557 Berlin", "Berlin", "station"),
        "st_dest": P("st_dest", "Hamburg Hauptbahnhof", 53.55300, 10.00650, "Hachmannplatz 16, 20099 Hamburg, Germany", "Hamburg",
                     "station", alt=10),
        "hotel": P("hotel", "Hotel Alster Garden", 53.55750, 10.01100, "An der Alster 12, 20099 Hamburg", "Hamburg", "hotel", alt=10),
        "sight1": P("sight1", "Elbphilharmonie", 53.54130, 9.98410, "Platz der Deutschen Einheit 4, 20457 Hamburg, Germany", "Hamburg",
                    "sight", alt=8),
        "sight2": P("sight2", "Miniatur Wunderland", 53.54370, 9.98860, "Kehrwieder 2, 20457 Hamburg", "Hamburg", "sight", alt=8),
        "lunch2": P("lunch2", "Speicherstadt Kaffeerösterei", 53.54430, 9.98900 + 0.0025, "Kehrwieder 5, 20457 Hamburg", "Hamburg",
                    "cafe", alt=8),
        "sight3": P("sight3", "Planten un Blomen", 53.56080, 9.98200, "Marseiller Str., 20355 Hamburg, Germany", "Hamburg", "park", alt=15),
        "dinner1": P("dinner1", "Trattoria Schanze", 53.56320, 9.96220, "Schulterblatt 60, 20357 Hamburg", "Hamburg", "restaurant", alt=15),
        "dinner2": P("dinner2", "Fischrestaurant Elbblick", 53.54420, 9.94000, "Große Elbstraße 130, 22767 Hamburg", "Hamburg",
                     "restaurant", alt=5),
        "sight4": P("sight4", "Hamburger Fischmarkt", 53.54520, 9.94980, "Große Elbstraße 9, 22767 Hamburg, Germany", "Hamburg",
                    "market", alt=5),
    }
    routes = {
        "kanal": dict(words=["Landwehrkanal", "Kreuzberg"], via=[(52.4955, 13.4250), (52.4935, 13.4150), (52.4960, 13.4030),
                                                                  (52.4985, 13.4090), (52.4990, 13.4200)]),
        "treptow": dict(words=["Treptower Park", "Treptow", "Spree"], via=[(52.4955, 13.4390), (52.4880, 13.4700),
                                                                            (52.4930, 13.4620), (52.4995, 13.4430)]),
        "tempelhof": dict(words=["Tempelhofer Feld", "Tempelhof", "Hasenheide"],
                          via=[(52.4850, 13.4150), (52.4800, 13.4000), (52.4700, 13.4050), (52.4730, 13.3900),
                               (52.4820, 13.3880), (52.4870, 13.4150)]),
        "museumsinsel": dict(words=["Museumsinsel", "Monbijoupark", "Mitte"], via=[(52.5230, 13.3990), (52.5185, 13.4000),
                                                                                    (52.5150, 13.4080), (52.5200, 13.4130)]),
    }
    return dict(
        name="berlin", tz=tz, city="Berlin", start=dt.date(2026, 3, 16), weeks=6,
        holidays={dt.date(2026, 4, 3), dt.date(2026, 4, 6)},
        person=dict(given="Jana", family="Becker", email="jana.becker@example.org", user="janabecker"),
        phone=dict(style="pixel", make="Google", model="Pixel 8", software="HDR+ 1.0.641377693zd"),
        location="takeout", labelled=True, places=pl, routes=routes,
        homes=[(None, "home")], shops={"home": "shop"}, parks={"home": "park"},
        cafe_time="morning_home", commute="IN_SUBWAY", commute_stations=("st_home", "st_work"),
        local_transit="IN_SUBWAY",
        # Planted repeats (issue 42): by bike to work and back Mon/Wed/Fri (Strava), on foot home by
        # the canal Tue/Thu (only the location history records it: 50 minutes, 4 km), the gym
        # Mon/Wed/Fri evenings (a Garmin indoor session, TCX without positions). None is a moment.
        repeats=dict(ride_days={0, 2, 4}, walk_home_days={1, 3}, walk_via=[(52.5120, 13.4130), (52.5030, 13.4230)],
                     gym="gym", gym_days={0, 2, 4}),
        hike=dict(travel="IN_PASSENGER_VEHICLE", via=[(52.5400, 13.7000)], name="Märkische Schweiz: Schermützelsee-Runde",
                  part1=[(52.5760, 14.0680), (52.5800, 14.0550)], part2=[(52.5880, 14.0640), (52.5860, 14.0800), (52.5760, 14.0860)],
                  words=["Buckow", "Märkische Schweiz", "Schermützelsee", "Fischerkehle"],
                  event=("Wandern Märkische Schweiz mit Jonas", "Buckow (Märkische Schweiz)")),
        trip=dict(city="Hamburg", words=["Hamburg"], train_speed=42.0, train_via=[(52.9900, 11.7500), (53.4000, 10.5000)],
                  local="IN_SUBWAY", event_out=("ICE 703 Berlin Hbf → Hamburg Hbf", "Berlin Hbf"),
                  event_back=("ICE 706 Hamburg Hbf → Berlin Hbf", "Hamburg Hbf")),
        dinner=dict(event="Lenas Geburtstag", friend="lena", other="jonas"),
        coffee=dict(event="Kaffee mit Sam", friend="sam"),
        team_event=("Team-Weekly", "Tilde Software GmbH, Rosenthaler Straße 40, 10178 Berlin"),
        contacts={
            "lena": dict(given="Lena", family="Hoffmann", email="lena.hoffmann@example.org", phone="+49 170 5550123", birthday="1991-03-21"),
            "jonas": dict(given="Jonas", family="Weber", email="jonas.weber@example.net", phone="+49 151 5550188"),
            "sam": dict(given="Sam", family="Okafor", email="sam.okafor@example.com", phone="+49 176 5550142"),
            "mum": dict(given="Petra", family="Becker", email="petra.becker@example.de", phone="+49 30 5550199", birthday="1962-04-14"),
            "colleague": dict(given="Timo", family="Richter", email="timo.richter@tilde.example", org="Tilde Software GmbH"),
        },
        birthday=("Mama Geburtstag", dt.date(2026, 4, 14)),
        run_names={"tempelhof": "Tempelhofer Feld intervals", "treptow": "Sunday long run to Treptower Park"},
        plan=[
            (0, 1, "run", dict(route="kanal", when="morning")),
            (0, 5, "dinner", {}),
            (0, 6, "museum", {}),
            (1, 3, "run", dict(route="tempelhof", when="evening", tcx=True)),
            (1, 4, "trip", {}),          # Fri 27 – Sun 29 March: the clocks go forward on the Sunday
            (2, 1, "run", dict(route="museumsinsel", when="lunch")),
            (2, 3, "bar", {}),
            (2, 5, "hike", {}),
            (2, 6, "home", {}),
            (3, 2, "run", dict(route="kanal", when="morning", selfie=True)),
            (3, 3, "coffee", {}),
            (3, 6, "market", {}),
            (4, 0, "run", dict(route="kanal", when="evening")),
            (4, 6, "run", dict(route="treptow", when="sunday")),
            (5, 3, "run", dict(route="tempelhof", when="evening")),
            (5, 5, "lake", {}),
        ],
        stray=[(1, 1, "work"), (4, 2, "shop")],
    )


def tokyo():
    tz = "Asia/Tokyo"
    pl = {
        "home": P("home", "Home", 35.64010, 139.70080, "2-chōme-14-5 Kamimeguro, Meguro City", "Tokyo", "home", True, ["home"],
                  semantic="home", alt=20),
        "st_home": P("st_home", "Naka-meguro Station", 35.64420, 139.69890, "3-chōme-4-1 Kamimeguro, Meguro City", "Tokyo", "station"),
        "work": P("work", "Shin-Marunouchi Building", 35.68240, 139.76460, "1-chōme-5-1 Marunouchi, Chiyoda City", "Tokyo", "work", True,
                  semantic="work", alt=5),
        "st_work": P("st_work", "Tokyo Station", 35.68120, 139.76710, "1-chōme-9 Marunouchi, Chiyoda City", "Tokyo", "station"),
        "cafe": P("cafe", "Kissa Marunouchi", 35.67980, 139.76350, "2-chōme-4-1 Marunouchi, Chiyoda City", "Tokyo", "cafe", True,
                  ["Kissa Marunouchi"]),
        "lunch": P("lunch", "Yaesu Soba Matsuo", 35.68000, 139.76950, "1-chōme-6-6 Yaesu, Chuo City", "Tokyo", "lunch", True),
        "shop": P("shop", "Life Nakameguro", 35.64200, 139.69600, "1-chōme-3-10 Aobadai, Meguro City", "Tokyo", "supermarket", True),
        "park": P("park", "Saigōyama Park", 35.64930, 139.69820, "2-chōme-10-28 Aobadai, Meguro City", "Tokyo", "park", True),
        "restaurant": P("restaurant", "Izakaya Kamome", 35.64670, 139.71010, "1-chōme-12-3 Ebisunishi, Shibuya City", "Tokyo",
                        "restaurant", words=["Kamome", "Ebisu"]),
        "museum": P("museum", "Tokyo National Museum", 35.71880, 139.77650, "13-9 Uenokoen, Taito City", "Tokyo", "museum",
                    words=["Tokyo National Museum", "National Museum", "Ueno"]),
        "bar": P("bar", "Bar Albatross", 35.69400, 139.70460, "1-chōme-1-7 Kabukichō, Shinjuku City", "Tokyo", "bar",
                 words=["Albatross", "Golden Gai", "Shinjuku", "Kabukichō", "Kabukicho"]),
        "market": P("market", "Yoyogi Park Flea Market", 35.67170, 139.69490, "2-1 Yoyogikamizonochō, Shibuya City", "Tokyo", "market",
                    words=["Yoyogi"]),
        "lake": P("lake", "Enoshima", 35.29990, 139.48000, "2-chōme Enoshima, Fujisawa", "Fujisawa", "beach",
                  words=["Enoshima", "Fujisawa"], alt=10),
        "trailhead": P("trailhead", "Takaosanguchi Station", 35.63230, 139.26980, "2241 Takaomachi, Hachioji", "Hachioji", "trailhead",
                       words=["Takao", "Hachioji", "Hachiōji"], alt=190),
        "inn": P("inn", "Mount Takao summit", 35.62510, 139.24370, "Takaomachi, Hachioji", "Hachioji", "summit",
                 words=["Takao", "Hachioji", "Hachiōji"], alt=599),
        "st_origin": P("st_origin", "Shinagawa Station", 35.62850, 139.73880, "3-chōme-26-27 Takanawa, Minato City", "Tokyo", "station"),
        "st_dest": P("st_dest", "Kyoto Station", 34.98580, 135.75880, "Higashishiokōjichō, Shimogyo Ward, Kyoto", "Kyoto", "station", alt=30),
        "hotel": P("hotel", "Hotel Gion Shirakawa", 35.00530, 135.77400, "Shirakawa, Higashiyama Ward, Kyoto", "Kyoto", "hotel", alt=45),
        "sight1": P("sight1", "Fushimi Inari Taisha", 34.96710, 135.77270, "68 Fukakusa Yabunouchichō, Fushimi Ward, Kyoto", "Kyoto", "sight", alt=60),
        "sight2": P("sight2", "Kiyomizu-dera", 34.99490, 135.78500, "1-chōme-294 Kiyomizu, Higashiyama Ward, Kyoto", "Kyoto", "sight", alt=100),
        "lunch2": P("lunch2", "Nishiki Market", 35.00500, 135.76490, "Nishikikoji-dori, Nakagyo Ward, Kyoto", "Kyoto", "market", alt=40),
        "sight3": P("sight3", "Arashiyama Bamboo Grove", 35.01700, 135.67130, "Sagaogurayama, Ukyo Ward, Kyoto", "Kyoto", "sight", alt=60),
        "dinner1": P("dinner1", "Pontocho Kappo Yoshida", 35.00560, 135.77070, "Pontochō, Nakagyo Ward, Kyoto", "Kyoto", "restaurant", alt=40),
        "dinner2": P("dinner2", "Sagano Yudofu", 35.01500, 135.67500, "Sagatenryuji, Ukyo Ward, Kyoto", "Kyoto", "restaurant", alt=55),
        "sight4": P("sight4", "Heian Shrine", 35.01600, 135.78240, "97 Okazaki Nishitennōchō, Sakyo Ward, Kyoto", "Kyoto", "sight", alt=50),
    }
    routes = {
        "meguro": dict(words=["Meguro River", "Meguro", "Nakameguro", "Gotanda"],
                       via=[(35.6370, 139.7130), (35.6260, 139.7230), (35.6230, 139.7270), (35.6330, 139.7150)]),
        "palace": dict(words=["Imperial Palace", "Kōkyo", "Kokyo", "Chiyoda", "Marunouchi"],
                       via=[(35.6810, 139.7590), (35.6890, 139.7560), (35.6920, 139.7480), (35.6860, 139.7440),
                            (35.6780, 139.7470), (35.6770, 139.7560)]),
        "komazawa": dict(words=["Komazawa"], via=[(35.6330, 139.6850), (35.6280, 139.6650), (35.6240, 139.6600),
                                                  (35.6260, 139.6680), (35.6320, 139.6860)]),
    }
    return dict(
        name="tokyo", tz=tz, city="Tokyo", start=dt.date(2026, 5, 11), weeks=6, holidays=set(),
        person=dict(given="Kenji", family="Sato", email="kenji.sato@example.jp", user="kenjisato"),
        phone=dict(style="iphone", make="Apple", model="iPhone 15", software="17.5"),
        location="owntracks", labelled=False, places=pl, routes=routes,
        homes=[(None, "home")], shops={"home": "shop"}, parks={"home": "park"},
        cafe_time="morning_work", commute="IN_SUBWAY", commute_stations=("st_home", "st_work"),
        local_transit="IN_SUBWAY",
        hike=dict(travel="IN_TRAIN", via=[(35.6580, 139.5000)], name="Takao-san Trail 1 and Inariyama",
                  part1=[(35.6300, 139.2620), (35.6270, 139.2520)], part2=[(35.6230, 139.2480), (35.6260, 139.2560), (35.6290, 139.2640)],
                  words=["Takao", "Hachioji", "Hachiōji"], event=("Takao-san hike with Hiro", "Takaosanguchi Station")),
        trip=dict(city="Kyoto", words=["Kyoto"], train_speed=50.0, train_via=[(35.1700, 138.6800), (35.1700, 136.8800)],
                  local="IN_BUS", event_out=("Nozomi 23 Shinagawa → Kyoto", "Shinagawa Station"),
                  event_back=("Nozomi 244 Kyoto → Shinagawa", "Kyoto Station")),
        dinner=dict(event="Yuki's birthday", friend="yuki", other="hiro"),
        coffee=dict(event="Coffee with Mei", friend="mei"),
        team_event=("Weekly sync", "Shin-Marunouchi Building, 1-5-1 Marunouchi, Chiyoda City, Tokyo"),
        contacts={
            "yuki": dict(given="Yuki", family="Tanaka", email="yuki.tanaka@example.jp", phone="+81 90 5550 1234", birthday="1993-05-16"),
            "hiro": dict(given="Hiroshi", family="Kobayashi", email="hiro.kobayashi@example.jp", phone="+81 80 5550 9876"),
            "mei": dict(given="Mei", family="Watanabe", email="mei.watanabe@example.com"),
            "mum": dict(given="Akiko", family="Sato", email="akiko.sato@example.jp", birthday="1960-06-02"),
        },
        birthday=("Mom's birthday", dt.date(2026, 6, 2)),
        run_names={"palace": "Kōkyo lunch loop"},
        plan=[
            (0, 1, "run", dict(route="meguro", when="morning")),
            (0, 5, "dinner", {}),
            (0, 6, "museum", {}),
            (1, 3, "run", dict(route="palace", when="lunch", tcx=True)),
            (1, 4, "trip", {}),
            (2, 1, "run", dict(route="meguro", when="evening")),
            (2, 3, "bar", {}),
            (2, 5, "hike", {}),
            (2, 6, "home", {}),
            (3, 2, "run", dict(route="komazawa", when="morning", selfie=True)),
            (3, 3, "coffee", {}),
            (3, 6, "market", {}),
            (4, 0, "run", dict(route="meguro", when="evening")),
            (4, 6, "run", dict(route="komazawa", when="sunday")),
            (5, 3, "run", dict(route="palace", when="lunch")),
            (5, 5, "lake", {}),
        ],
        stray=[(1, 1, "work"), (4, 2, "shop")],
    )


def melbourne():
    tz = "Australia/Melbourne"
    pl = {
        "home": P("home", "45 Lennox St", -37.81930, 144.99790, "45 Lennox St, Richmond", "Richmond", "home", True,
                  ["home", "Richmond"]),
        "st_home": P("st_home", "Swan St/Church St", -37.82470, 144.99950, "Swan St, Richmond", "Richmond", "station"),
        "home2": P("home2", "12 Albert St", -37.76600, 144.96350, "12 Albert St, Brunswick", "Brunswick", "home", True,
                   ["home", "Brunswick"]),
        "st_home2": P("st_home2", "Sydney Rd/Albert St", -37.76620, 144.96170, "Sydney Rd, Brunswick", "Brunswick", "station"),
        "work": P("work", "Harbour & Finch", -37.81420, 144.97060, "120 Collins St, Melbourne", "Melbourne", "work", True),
        "st_work": P("st_work", "Collins St/Swanston St", -37.81550, 144.96670, "Collins St, Melbourne", "Melbourne", "station"),
        "cafe": P("cafe", "Laneway Espresso", -37.81730, 144.96560, "9 Degraves St, Melbourne", "Melbourne", "cafe", True,
                  ["Laneway Espresso", "Degraves"]),
        "lunch": P("lunch", "Queen Victoria Market", -37.80760, 144.95680, "Queen St, Melbourne VIC 3000, Australia", "Melbourne",
                   "lunch", True),
        "shop": P("shop", "Coles Bridge Road", -37.81860, 144.99370, "300 Bridge Rd, Richmond", "Richmond", "supermarket", True),
        "shop2": P("shop2", "Coles Brunswick", -37.76820, 144.96140, "380 Sydney Rd, Brunswick", "Brunswick", "supermarket", True),
        "park": P("park", "Barkly Gardens", -37.82190, 145.00320, "Barkly Ave, Richmond", "Richmond", "park", True),
        "park2": P("park2", "Clifton Park", -37.76520, 144.97020, "Albert St, Brunswick East", "Brunswick East", "park", True),
        "restaurant": P("restaurant", "Trattoria Emilia", -37.79810, 144.96690, "300 Lygon St, Carlton", "Carlton", "restaurant",
                        words=["Trattoria Emilia", "Emilia", "Lygon"]),
        "museum": P("museum", "Melbourne Museum", -37.80330, 144.97170, "11 Nicholson St, Carlton VIC 3053, Australia", "Carlton", "museum",
                    words=["Melbourne Museum"]),
        "bar": P("bar", "The Croft Institute", -37.81160, 144.96890, "21 Croft Alley, Melbourne", "Melbourne", "bar",
                 words=["Croft"]),
        "lake": P("lake", "St Kilda Beach", -37.86780, 144.97400, "Jacka Blvd, St Kilda", "St Kilda", "beach", words=["St Kilda"], alt=3),
        "trailhead": P("trailhead", "Memorial Cross", -37.38700, 144.58500, "Memorial Cross Rd, Mount Macedon", "Mount Macedon",
                       "trailhead", words=["Macedon"], alt=960),
        "inn": P("inn", "Camels Hump", -37.40280, 144.57450, "Camels Hump Rd, Mount Macedon", "Mount Macedon", "summit",
                 words=["Macedon", "Camels Hump", "Camel's Hump"], alt=1010),
        "st_origin": P("st_origin", "Southern Cross Station", -37.81830, 144.95250, "Spencer St, Melbourne", "Melbourne", "station"),
        "st_dest": P("st_dest", "Albury Station", -36.08420, 146.92460, "Railway Pl, Albury NSW 2640, Australia", "Albury", "station", alt=165),
        "hotel": P("hotel", "Hotel Murray View", -36.08050, 146.91700, "550 Dean St, Albury", "Albury", "hotel", alt=165),
        "sight1": P("sight1", "Albury Botanic Gardens", -36.07860, 146.91530, "Wodonga Pl, Albury NSW 2640, Australia", "Albury", "park", alt=165),
        "sight2": P("sight2", "Noreuil Park", -36.09400, 146.90100, "Noreuil Park Dr, Albury", "Albury", "park", alt=150),
        "lunch2": P("lunch2", "River Deck Cafe", -36.09350, 146.90200 + 0.0020, "48 Noreuil Park Dr, Albury", "Albury", "cafe", alt=150),
        "sight3": P("sight3", "Wonga Wetlands", -36.08800, 146.87200, "Riverina Hwy, Splitters Creek", "Splitters Creek", "park", alt=150),
        "dinner1": P("dinner1", "Bistro on Dean", -36.08100, 146.91450, "510 Dean St, Albury", "Albury", "restaurant", alt=165),
        "dinner2": P("dinner2", "Murray Art Museum", -36.08170, 146.91250, "546 Dean St, Albury NSW 2640, Australia", "Albury", "museum", alt=165),
        "sight4": P("sight4", "Monument Hill", -36.07830, 146.92300, "Dean St, Albury", "Albury", "sight", alt=190),
    }
    routes = {
        "yarra": dict(words=["Yarra", "Richmond"], via=[(-37.8250, 145.0000), (-37.8290, 145.0100), (-37.8220, 145.0200),
                                                          (-37.8180, 145.0080)]),
        "tan": dict(words=["Tan", "Botanic Gardens", "Kings Domain"], via=[(-37.8200, 144.9720), (-37.8290, 144.9760),
                                                                          (-37.8340, 144.9800), (-37.8300, 144.9840), (-37.8230, 144.9800)]),
        "merri": dict(words=["Merri Creek", "Brunswick", "Coburg"], via=[(-37.7640, 144.9790), (-37.7560, 144.9830),
                                                                         (-37.7500, 144.9820), (-37.7600, 144.9800)]),
    }
    return dict(
        name="melbourne", tz=tz, city="Melbourne", start=dt.date(2026, 2, 2), weeks=6,
        holidays={dt.date(2026, 3, 9)},
        person=dict(given="Priya", family="Nair", email="priya.nair@example.com.au", user="priyanair"),
        phone=dict(style="samsung", make="samsung", model="SM-S921B", software="S921BXXS3AXL1"),
        location="takeout", labelled=False, places=pl, routes=routes,
        homes=[(None, "home"), (dt.date(2026, 2, 28), "home2")], shops={"home": "shop", "home2": "shop2"},
        parks={"home": "park", "home2": "park2"},
        cafe_time="morning_work", commute="IN_TRAM", commute_stations=None, local_transit="IN_TRAM",
        # Planted repeats (issue 42): by bike to work and back on Tuesdays and Thursdays (Strava),
        # from Richmond and, after the move, from Brunswick: the same route between home and work.
        repeats=dict(ride_days={1, 3}),
        hike=dict(travel="IN_PASSENGER_VEHICLE", via=[(-37.6000, 144.8000)], name="Camels Hump loop",
                  part1=[(-37.3920, 144.5800), (-37.3985, 144.5760)], part2=[(-37.3990, 144.5700), (-37.3920, 144.5760)],
                  words=["Macedon", "Camels Hump", "Camel's Hump"], event=("Macedon hike w/ Tom", "Mount Macedon Memorial Cross")),
        trip=dict(city="Albury", words=["Albury"], train_speed=24.0,
                  train_via=[(-37.0250, 145.1390), (-36.5500, 145.9800), (-36.3580, 146.3120)],
                  local="IN_PASSENGER_VEHICLE", event_out=("V/Line Melbourne → Albury", "Southern Cross Station"),
                  event_back=("V/Line Albury → Melbourne", "Albury Station")),
        dinner=dict(event="Aisha's birthday dinner", friend="aisha", other="tom"),
        coffee=dict(event="Coffee w/ Ben", friend="ben"),
        team_event=("Team stand-up", "120 Collins St, Melbourne VIC 3000"),
        contacts={
            "aisha": dict(given="Aisha", family="Rahman", email="aisha.rahman@example.com", phone="+61 412 555 014", birthday="1992-02-07"),
            "tom": dict(given="Tom", family="Gallagher", email="tom.gallagher@example.net", phone="+61 423 555 077"),
            "ben": dict(given="Ben", family="Ho", email="ben.ho@example.org"),
            "mum": dict(given="Lakshmi", family="Nair", email="lakshmi.nair@example.in", birthday="1963-03-03"),
        },
        birthday=("Amma's birthday", dt.date(2026, 3, 3)),
        run_names={"merri": "Merri Creek trail", "tan": "Tan lap at lunch"},
        plan=[
            (0, 1, "run", dict(route="yarra", when="morning")),
            (0, 5, "dinner", {}),
            (0, 6, "museum", {}),
            (1, 3, "run", dict(route="tan", when="lunch", tcx=True)),
            (1, 4, "trip", {}),
            (2, 1, "run", dict(route="yarra", when="evening")),
            (2, 3, "bar", {}),
            (2, 5, "hike", {}),
            (2, 6, "home", {}),
            (3, 2, "run", dict(route="tan", when="lunch", selfie=False)),
            (3, 3, "coffee", {}),
            (3, 5, "move", {}),          # moves from Richmond to Brunswick on Saturday 28 February
            (4, 0, "run", dict(route="merri", when="evening", selfie=True)),
            (4, 6, "run", dict(route="merri", when="sunday")),
            (5, 3, "run", dict(route="merri", when="evening")),
            (5, 5, "lake", {}),
        ],
        stray=[(1, 1, "work"), (4, 2, "shop2")],
    )


def london():
    """An iPhone and watch person: workouts from the Apple Health export (an Apple Watch) until the
    hike, then from Gadgetbridge (an Amazfit Bip on an old Android phone kept for it); location
    from OwnTracks on the iPhone; the clocks go back on Sunday 25 October, during the trip."""
    tz = "Europe/London"
    pl = {
        "home": P("home", "Home", 51.54480, -0.05530, "14 Mehetabel Road, London E9 6DU", "London", "home", True, ["home"],
                  semantic="home", alt=20),
        "st_home": P("st_home", "Hackney Central", 51.54710, -0.05600, "Amhurst Road, London E8 1LL", "London", "station"),
        "work": P("work", "Fernway Studio Ltd", 51.53540, -0.12520, "1 Granary Square, London N1C 4AA", "London", "work", True,
                  semantic="work", alt=25),
        "st_work": P("st_work", "King's Cross St. Pancras", 51.53080, -0.12380, "Euston Road, London N1 9AL", "London", "station"),
        "cafe": P("cafe", "Coal Drops Coffee", 51.53720, -0.12700, "Stable Street, London N1C 4AB", "London", "cafe", True,
                  ["Coal Drops Coffee"]),
        "lunch": P("lunch", "Roti King Euston", 51.52900, -0.13300, "40 Doric Way, London NW1 1LH", "London", "lunch", True),
        "shop": P("shop", "Sainsbury's Morning Lane", 51.54560, -0.05000, "Morning Lane, London E9 6LG", "London", "supermarket", True),
        "park": P("park", "London Fields", 51.54190, -0.06150, "Richmond Road, London E8 3QT", "London", "park", True),
        "restaurant": P("restaurant", "Osteria Canale", 51.53620, -0.06150, "58 Broadway Market, London E8 4QJ", "London",
                        "restaurant", words=["Osteria Canale", "Broadway Market"]),
        "museum": P("museum", "British Museum", 51.51940, -0.12700, "Great Russell Street, London WC1B 3DG", "London", "museum",
                    words=["British Museum", "Bloomsbury"]),
        "bar": P("bar", "The Owl and Lantern", 51.52620, -0.07840, "120 Curtain Road, London EC2A 3PJ", "London", "bar",
                 words=["Owl and Lantern", "Shoreditch"]),
        "market": P("market", "Columbia Road Flower Market", 51.52920, -0.06960, "Columbia Road, London E2 7RG", "London", "market",
                    words=["Columbia Road", "Flower Market"]),
        "lake": P("lake", "Brighton Palace Pier", 50.81690, -0.13660, "Madeira Drive, Brighton BN2 1TW", "Brighton", "beach",
                  words=["Brighton", "Palace Pier"], alt=8),
        "trailhead": P("trailhead", "Box Hill & Westhumble Station", 51.25410, -0.32880, "Westhumble Street, Dorking RH5 6BT",
                       "Dorking", "trailhead", words=["Box Hill", "Dorking", "Mickleham", "Westhumble"], alt=50),
        "inn": P("inn", "Box Hill summit", 51.25620, -0.31010, "Zig Zag Road, Tadworth KT20 7LB", "Dorking", "summit",
                 words=["Box Hill", "Dorking", "Mickleham", "Tadworth"], alt=172),
        "st_origin": P("st_origin", "London Paddington", 51.51540, -0.17550, "Praed Street, London W2 1HU", "London", "station"),
        "st_dest": P("st_dest", "Bath Spa Station", 51.37770, -2.35700, "Dorchester Street, Bath BA1 1SU, United Kingdom", "Bath",
                     "station", alt=20),
        "hotel": P("hotel", "Lansdown Grove Hotel", 51.38960, -2.36020, "Lansdown Road, Bath BA1 5EH", "Bath", "hotel", alt=60),
        "sight1": P("sight1", "Roman Baths", 51.38110, -2.35970, "Stall Street, Bath BA1 1LZ, United Kingdom", "Bath", "sight", alt=20),
        "sight2": P("sight2", "Royal Crescent", 51.38710, -2.36790, "Royal Crescent, Bath BA1 2LR", "Bath", "sight", alt=45),
        "lunch2": P("lunch2", "Green Park Brasserie", 51.37890, -2.36630, "Green Park Road, Bath BA1 1JB", "Bath", "cafe", alt=20),
        "sight3": P("sight3", "Prior Park Landscape Garden", 51.36600, -2.34470, "Ralph Allen Drive, Bath BA2 5AH", "Bath", "park",
                    alt=110),
        "dinner1": P("dinner1", "The Circus Restaurant", 51.38560, -2.36230, "34 Brock Street, Bath BA1 2LN", "Bath", "restaurant",
                     alt=45),
        "dinner2": P("dinner2", "Bistro on the Bridge", 51.38320, -2.35650, "Argyle Street, Bath BA2 4BA", "Bath", "restaurant", alt=20),
        "sight4": P("sight4", "Bath Skyline", 51.37580, -2.33460, "Bathwick Fields, Bath BA2 6NB, United Kingdom", "Bath", "sight",
                    alt=150),
    }
    routes = {
        "canal": dict(words=["Regent's Canal", "Haggerston", "Broadway Market"],
                      via=[(51.5375, -0.0560), (51.5355, -0.0700), (51.5360, -0.0830), (51.5390, -0.0720)]),
        "vicpark": dict(words=["Victoria Park"], via=[(51.5400, -0.0450), (51.5370, -0.0330), (51.5335, -0.0290), (51.5360, -0.0420)]),
        "marshes": dict(words=["Hackney Marshes", "River Lea", "Lea"],
                        via=[(51.5520, -0.0460), (51.5590, -0.0340), (51.5540, -0.0270), (51.5480, -0.0390)]),
        "camden": dict(words=["Camden", "Regent's Canal"],
                       via=[(51.5375, -0.1330), (51.5395, -0.1440), (51.5415, -0.1465), (51.5380, -0.1320)]),
    }
    return dict(
        name="london", tz=tz, city="London", start=dt.date(2026, 10, 12), weeks=6, holidays=set(),
        person=dict(given="Priya", family="Shah", email="priya.shah@example.co.uk", user="priyashah"),
        phone=dict(style="iphone", make="Apple", model="iPhone 15 Pro", software="18.0.1"),
        location="owntracks", labelled=False, places=pl, routes=routes,
        # Workouts and steps: the Apple Health export.zip (an Apple Watch) until the watch gives way to
        # an Amazfit Bip on the hike's day, then Gadgetbridge's database and its GPX tracks.
        workouts="health", watch_until=dt.date(2026, 10, 31),
        homes=[(None, "home")], shops={"home": "shop"}, parks={"home": "park"},
        cafe_time="morning_work", commute="IN_SUBWAY", commute_stations=("st_home", "st_work"),
        local_transit="IN_SUBWAY",
        hike=dict(travel="IN_TRAIN", via=[(51.3600, -0.2000)], name="Box Hill Stepping Stones loop",
                  part1=[(51.2560, -0.3230), (51.2575, -0.3150)], part2=[(51.2600, -0.3080), (51.2580, -0.3200), (51.2550, -0.3260)],
                  words=["Box Hill", "Dorking", "Mickleham", "Westhumble"], event=("Box Hill walk with Tom", "Box Hill & Westhumble Station")),
        trip=dict(city="Bath", words=["Bath"], train_speed=38.0, train_via=[(51.4590, -0.9720), (51.4590, -1.7800)],
                  local="IN_BUS", event_out=("GWR 1C19 London Paddington → Bath Spa", "London Paddington"),
                  event_back=("GWR 1A32 Bath Spa → London Paddington", "Bath Spa Station")),
        dinner=dict(event="Maya's birthday", friend="maya", other="tom"),
        coffee=dict(event="Coffee with Sam", friend="sam"),
        team_event=("Studio weekly", "Fernway Studio Ltd, 1 Granary Square, London N1C 4AA"),
        contacts={
            "maya": dict(given="Maya", family="Collins", email="maya.collins@example.co.uk", phone="+44 7700 900123", birthday="1992-10-17"),
            "tom": dict(given="Tom", family="Whitaker", email="tom.whitaker@example.com", phone="+44 7700 900456"),
            "sam": dict(given="Sam", family="Adeyemi", email="sam.adeyemi@example.org", phone="+44 7700 900789"),
            "mum": dict(given="Anjali", family="Shah", email="anjali.shah@example.co.uk", birthday="1964-11-09"),
            "colleague": dict(given="Oliver", family="Hughes", email="oliver.hughes@fernway.example", org="Fernway Studio Ltd"),
        },
        birthday=("Mum's birthday", dt.date(2026, 11, 9)),
        run_names={"camden": "Canal to Camden lunch loop", "vicpark": "Sunday long run round Victoria Park"},
        plan=[
            (0, 1, "run", dict(route="canal", when="morning")),
            (0, 5, "dinner", {}),
            (0, 6, "museum", {}),
            (1, 3, "run", dict(route="camden", when="lunch", tcx=True)),   # the watch's, and Strava's GPX of it
            (1, 4, "trip", {}),          # Fri 23 – Sun 25 October: the clocks go back on the Sunday
            (2, 1, "run", dict(route="vicpark", when="evening")),
            (2, 3, "bar", {}),
            (2, 5, "hike", {}),          # the Amazfit's first workout
            (2, 6, "home", {}),
            (3, 2, "run", dict(route="marshes", when="morning", selfie=True)),
            (3, 3, "coffee", {}),
            (3, 6, "market", {}),
            (4, 0, "run", dict(route="canal", when="evening")),
            (4, 6, "run", dict(route="vicpark", when="sunday")),
            (5, 3, "run", dict(route="camden", when="lunch")),
            (5, 5, "lake", {}),
        ],
        stray=[(1, 1, "work"), (4, 2, "shop")],
    )


def berlin_google():
    """Berlin's life as a person who keeps everything with Google holds it (issue 41): the same weeks,
    places and plans, but the photos come back from a Google Photos Takeout (JSON sidecars, a third of
    them without EXIF, an album folder of copies, `-edited` versions, a second backup of some files)
    and the music from Spotify's extended streaming history (skips, an incognito evening, podcasts),
    the first fortnight also scrobbled to ListenBrainz."""
    spec = berlin()
    spec.update(name="berlin-google", photos="google-takeout", music="spotify")
    return spec


LIVES = {"berlin": berlin, "tokyo": tokyo, "melbourne": melbourne, "london": london, "berlin-google": berlin_google}
